import { useNavigate } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { logoutRequested } from './authSlice';

/** Logs out (the server's session ended), then opens /login. */
export function useLogout(): () => Promise<void> {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  return async () => {
    await dispatch(logoutRequested());
    navigate('/login');
  };
}
